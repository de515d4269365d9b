# A composite flowop that calls itself: bounded nesting.
set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
define flowop name=again
{
  flowop statfile name=st,filesetname=s
  flowop again name=more
}
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop again name=go
  }
}
