# dirwidth=1: a directory a level, without end.
set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=1,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop statfile name=st,filesetname=s
  }
}
