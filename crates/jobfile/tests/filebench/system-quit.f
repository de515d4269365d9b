# A shell command filebench would run (iolab does not), and quit: what
# follows is never read, as filebench stops there.
set $dir=/srv/sq
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=1m,instances=1
  {
    flowop statfile name=st,filesetname=s
  }
}
system "sync"
run 3
quit
this line is not WML and is never read
