# Composite flowops with parameters, iters and nesting: a copy of one
# fileset's file into another (two descriptors, reordered to one open
# file at a time), called with its own fileset names.
set $dir=/srv/comp
set $chunk=64k

define fileset name=src,path=$dir,size=128k,entries=100,dirwidth=10,prealloc
define fileset name=dst,path=$dir,size=128k,entries=100,dirwidth=10

define flowop name=copyone, $from, $to
{
  flowop openfile name=in,filesetname=$from,fd=1
  flowop createfile name=out,filesetname=$to,fd=2
  flowop readwholefile name=pull,fd=1,iosize=$chunk
  flowop writewholefile name=push,fd=2,srcfd=1,iosize=$chunk
  flowop closefile name=inclose,fd=1
  flowop closefile name=outclose,fd=2
}
define flowop name=tidy, $set
{
  flowop deletefile name=rm,filesetname=$set
}
define flowop name=round, $a, $b
{
  flowop copyone name=c, $from=$a, $to=$b
  flowop tidy name=t, iters=3, $set=$b
}

define process name=copier,instances=2
{
  thread name=worker,memsize=1m,instances=2
  {
    flowop round name=go, iters=2, $a=src, $b=dst
    flowop statfile name=look,filesetname=src,iters=4
  }
}
run 5
