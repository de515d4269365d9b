#
# iolab's test copy of the webproxy personality: each pass replaces one
# cached object and reads five. Values: filebench 1.5's defaults; iolab's
# --personality webproxy must plan the same workload.

set $dir=/tmp
set $nfiles=10000
set $meandirwidth=1000000
set $meanfilesize=16k
set $nthreads=100
set $meaniosize=16k
set $iosize=1m

define fileset name=bigfileset,path=$dir,entries=$nfiles,dirwidth=$meandirwidth,size=$meanfilesize,prealloc=80

define process name=proxycache,instances=1
{
  thread name=cacher,memsize=10m,instances=$nthreads
  {
    flowop deletefile name=evict,filesetname=bigfileset
    flowop createfile name=store,filesetname=bigfileset,fd=1
    flowop appendfilerand name=storedata,fd=1,iosize=$meaniosize
    flowop closefile name=stored,fd=1
    flowop openfile name=hit1,filesetname=bigfileset,fd=1
    flowop readwholefile name=send1,fd=1,iosize=$iosize
    flowop closefile name=sent1,fd=1
    flowop openfile name=hit2,filesetname=bigfileset,fd=1
    flowop readwholefile name=send2,fd=1,iosize=$iosize
    flowop closefile name=sent2,fd=1
    flowop openfile name=hit3,filesetname=bigfileset,fd=1
    flowop readwholefile name=send3,fd=1,iosize=$iosize
    flowop closefile name=sent3,fd=1
    flowop openfile name=hit4,filesetname=bigfileset,fd=1
    flowop readwholefile name=send4,fd=1,iosize=$iosize
    flowop closefile name=sent4,fd=1
    flowop openfile name=hit5,filesetname=bigfileset,fd=1
    flowop readwholefile name=send5,fd=1,iosize=$iosize
    flowop closefile name=sent5,fd=1
    flowop opslimit name=cap
  }
}

echo "iolab test: webproxy"
run 60
