# 100 processes of 100 threads: more than one flow may have.
set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
define process name=p,instances=100
{
  thread name=t,memsize=1m,instances=100
  {
    flowop statfile name=st,filesetname=s
  }
}
