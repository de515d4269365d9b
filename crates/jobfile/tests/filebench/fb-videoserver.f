# Streaming: readers pull active videos at 96 MiB/s together (one event a
# MiB), a writer replaces a passive video every ten seconds.
set $dir=/srv/video
set $rate=96
set $vidsize=10g
set $viewers=48
set $live=activevids
set $archive=passivevids
eventgen rate=$rate

define fileset name=$live,path=$dir,size=$vidsize,entries=32,dirwidth=4,prealloc,paralloc,reuse=false
define fileset name=$archive,path=$dir,size=$vidsize,entries=194,dirwidth=20,prealloc=50,paralloc

define process name=vidwriter,instances=1
{
  thread name=ingest,memsize=10m,instances=1
  {
    flowop deletefile name=drop,filesetname=$archive
    flowop createfile name=newvid,filesetname=$archive,fd=1
    flowop writewholefile name=encode,iosize=1m,fd=1,srcfd=1
    flowop closefile name=sealed, fd=1
    flowop delay name=pause, value=10
  }
}
define process name=vidreaders,instances=1
{
  thread name=viewer,memsize=10m,instances=$viewers
  {
    flowop read name=stream,filesetname=$live,iosize=256k
    flowop bwlimit name=throttle, target=stream
  }
}
