# Descriptors never closed: filebench keeps them open across passes;
# iolab closes them at the end of each pass (with a note).
set $dir=/srv/forever
define fileset name=s,path=$dir,size=16k,entries=20,dirwidth=10,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop openfile name=keep,filesetname=s,fd=1
    flowop read name=r,fd=1,iosize=4k
  }
  thread name=u,memsize=1m,instances=1
  {
    flowop openfile name=a,filesetname=s,fd=1
    flowop openfile name=b,filesetname=s,fd=2
    flowop read name=ra,fd=1,iosize=4k
    flowop statfile name=st,filesetname=s
  }
}
run 1
