# A composite repeated 200 times and a stat after it: more steps than a
# flow takes, and no one block repeated that could stand for the pass.
set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
define flowop name=touch
{
  flowop createfile name=c,filesetname=s,fd=1
  flowop closefile name=cc,fd=1
}
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop touch name=many,iters=200
    flowop statfile name=st,filesetname=s
  }
}
