#
# iolab's test copy of the videoserver personality: readers stream the
# active videos at 96 MiB/s together (96 events a second, 1 MiB each),
# a writer replaces a passive video every 10 s. Values: filebench 1.5's
# defaults; iolab's --personality videoserver must plan the same.

set $dir=/tmp
set $eventrate=96
set $filesize=10g
set $nthreads=48
set $numactivevids=32
set $numpassivevids=194
set $reuseit=false
set $readiosize=256k
set $writeiosize=1m
set $passvidsname=passivevids
set $actvidsname=activevids
set $repintval=10

eventgen rate=$eventrate

define fileset name=$actvidsname,path=$dir,entries=$numactivevids,dirwidth=4,size=$filesize,prealloc,paralloc,reuse=$reuseit
define fileset name=$passvidsname,path=$dir,entries=$numpassivevids,dirwidth=20,size=$filesize,prealloc=50,paralloc,reuse=$reuseit

define process name=vidwriter,instances=1
{
  thread name=replacer,memsize=10m,instances=1
  {
    flowop deletefile name=retire,filesetname=$passvidsname
    flowop createfile name=upload,filesetname=$passvidsname,fd=1
    flowop writewholefile name=encode,fd=1,srcfd=1,iosize=$writeiosize
    flowop closefile name=uploaded,fd=1
    flowop delay name=pause,value=$repintval
  }
}

define process name=vidreaders,instances=1
{
  thread name=streamer,memsize=10m,instances=$nthreads
  {
    flowop read name=stream,filesetname=$actvidsname,iosize=$readiosize
    flowop bwlimit name=pace,target=stream
  }
}

echo "iolab test: videoserver"
run 60
