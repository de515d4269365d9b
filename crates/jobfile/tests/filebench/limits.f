# eventgen with eventlimit (one event a pass) and iopslimit on a target
# (one event a transfer of that flowop).
set $dir=/srv/lim
eventgen rate=20
define fileset name=pool,path=$dir,size=32k,entries=200,dirwidth=20,prealloc
define fileset name=out,path=$dir,size=32k,entries=200,dirwidth=20
define process name=paced,instances=1
{
  thread name=p,memsize=1m,instances=3
  {
    flowop openfile name=o,filesetname=pool,fd=1
    flowop readwholefile name=r,fd=1,iosize=8k
    flowop closefile name=c,fd=1
    flowop statfile name=s,filesetname=pool
    flowop eventlimit name=one-per-pass
  }
}
define process name=copier,instances=1
{
  thread name=c,memsize=1m,instances=1
  {
    flowop createfile name=mk,filesetname=out,fd=3
    flowop write name=wr,fd=3,iosize=4k,iters=8
    flowop closefile name=cl,fd=3
    flowop iopslimit name=io, target=wr
  }
}
run 10
