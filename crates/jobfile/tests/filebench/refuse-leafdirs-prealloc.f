# Directories made before the run: iolab makes files, not directories.
set $dir=/srv/x
define fileset name=d,path=$dir,size=0,
  leafdirs=100,dirwidth=10,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=2
  {
    flowop removedir name=rm,filesetname=d
  }
}
