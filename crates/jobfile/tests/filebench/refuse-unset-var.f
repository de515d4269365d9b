# $nthreads is never set and not given after the file.
set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=$nthreads
  {
    flowop statfile name=st,filesetname=s
  }
}
run 5
