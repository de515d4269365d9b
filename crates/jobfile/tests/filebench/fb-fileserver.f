# A file server in the manner of filebench's fileserver personality,
# written for iolab's tests: each worker makes a file, fills it, appends
# to an existing one, reads one through, removes one and stats one.
set $dir=/srv/bench
set $count=10000
set $width=20
set $sizes=cvar(type=cvar-gamma,parameters=mean:131072;gamma:1.5)
set $workers=50
set $xfer=1m
set $appendmax=16k
set $seconds=60

define fileset name=bigfileset,path=$dir,size=$sizes,entries=$count,dirwidth=$width,prealloc=80

define process name=filereader,instances=1
{
  thread name=worker,memsize=10m,instances=$workers
  {
    flowop createfile name=mk,filesetname=bigfileset,fd=1
    flowop writewholefile name=fill,srcfd=1,fd=1,iosize=$xfer
    flowop closefile name=mkdone,fd=1
    flowop openfile name=reopen,filesetname=bigfileset,fd=1
    flowop appendfilerand name=grow,iosize=$appendmax,fd=1
    flowop closefile name=growdone,fd=1
    flowop openfile name=look,filesetname=bigfileset,fd=1
    flowop readwholefile name=slurp,fd=1,iosize=$xfer
    flowop closefile name=lookdone,fd=1
    flowop deletefile name=rm,filesetname=bigfileset
    flowop statfile name=st,filesetname=bigfileset
  }
}

echo "test file server ready"
run $seconds
