# A read without iosize (filebench stops on it too).
set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop read name=r,filesetname=s,random
  }
}
