# Two files in use at once: fd 1 is written after fd 2 was opened and
# read, so no reordering keeps one file open per thread.
set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop openfile name=a,filesetname=s,fd=1
    flowop openfile name=b,filesetname=s,fd=2
    flowop read name=rb,fd=2,iosize=4k
    flowop write name=wa,fd=1,iosize=4k
    flowop closefile name=ca,fd=1
    flowop closefile name=cb,fd=2
  }
}
run 5
