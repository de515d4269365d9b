#% var dir=/mnt/scratch
#% var nthreads=4
#% var typo=3
# NAME=VALUE after the file wins over set $NAME; a pair the file never
# uses is noted.
set $dir=/tmp
set $nthreads=64
set $nfiles=2000
define fileset name=files,path=$dir,size=4k,entries=$nfiles,dirwidth=100,prealloc
define process name=stat,instances=1
{
  thread name=s,memsize=1m,instances=$nthreads
  {
    flowop statfile name=st,filesetname=files
    flowop listdir name=ls,filesetname=files
  }
}
usage "give dir=DIR"
version
debug 2
run 15
