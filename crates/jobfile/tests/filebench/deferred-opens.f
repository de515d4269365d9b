# Three descriptors opened up front and used one after the other: each
# open is put off to its first use and each file closed after its last,
# so one file is open at a time.
set $dir=/srv/defer
define fileset name=docs,path=$dir,size=20k,entries=300,dirwidth=30,prealloc
define process name=client,instances=1
{
  thread name=c,memsize=1m,instances=5
  {
    flowop openfile name=first,filesetname=docs,fd=1
    flowop openfile name=second,filesetname=docs,fd=2
    flowop openfile name=third,filesetname=docs,fd=3
    flowop appendfilerand name=note,iosize=4k,fd=1
    flowop closefile name=close1,fd=1
    flowop readwholefile name=page2,iosize=8k,fd=2
    flowop readwholefile name=page3,iosize=8k,fd=3
    flowop closefile name=close2,fd=2
    flowop closefile name=close3,fd=3
    flowop deletefile name=gone,fd=3
  }
}
run 30
