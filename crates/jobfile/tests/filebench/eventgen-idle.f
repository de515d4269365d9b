# An event rate no flowop waits on.
set $dir=/srv/ev
eventgen rate=100
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop statfile name=st,filesetname=s
  }
}
run 2
