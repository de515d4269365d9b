# psrun: statistics every 5 s (reset each period), for 30 s; files
# defined one at a time in different places (define file).
set $dir=/srv/ps
set $other=/srv/elsewhere
define file name=alpha,path=$dir,size=1g,prealloc,reuse
define file name=beta,path=$other,size=256m,prealloc
define process name=pair,instances=1
{
  thread name=ra,memsize=1m,instances=2
  {
    flowop read name=ar,filename=alpha,iosize=1m
  }
  thread name=wb,memsize=1m,instances=1
  {
    flowop write name=bw,filename=beta,iosize=64k,random,iters=10
  }
}
create files
psrun -5 30
