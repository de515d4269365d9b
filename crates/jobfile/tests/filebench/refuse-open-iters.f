# iters on createfile: N files opened at once on one descriptor.
set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop createfile name=mk,filesetname=s,fd=1,iters=5
    flowop closefile name=cl,fd=1
  }
}
