#
# iolab's test copy of the varmail personality (a mail server's spool:
# one flat directory, fsync after every append). Values: filebench 1.5's
# defaults; iolab's --personality varmail must plan the same workload.

set $dir=/tmp
set $nfiles=1000
set $meandirwidth=1000000
set $filesize=cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)
set $nthreads=16
set $iosize=1m
set $meanappendsize=16k

define fileset name=bigfileset,path=$dir,entries=$nfiles,dirwidth=$meandirwidth,size=$filesize,prealloc=80

define process name=filereader,instances=1
{
  thread name=mailer,memsize=10m,instances=$nthreads
  {
    flowop deletefile name=expire,filesetname=bigfileset
    flowop createfile name=deliver,filesetname=bigfileset,fd=1
    flowop appendfilerand name=body,fd=1,iosize=$meanappendsize
    flowop fsync name=commit1,fd=1
    flowop closefile name=delivered,fd=1
    flowop openfile name=reopen,filesetname=bigfileset,fd=1
    flowop readwholefile name=fetch1,fd=1,iosize=$iosize
    flowop appendfilerand name=flag,fd=1,iosize=$meanappendsize
    flowop fsync name=commit2,fd=1
    flowop closefile name=flagged,fd=1
    flowop openfile name=reread,filesetname=bigfileset,fd=1
    flowop readwholefile name=fetch2,fd=1,iosize=$iosize
    flowop closefile name=done,fd=1
  }
}

echo "iolab test: varmail"
run 60
