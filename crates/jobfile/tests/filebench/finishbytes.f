# finishonbytes: 256 MiB moved by all threads, direct I/O everywhere.
set $dir=/srv/fb
define file name=big,path=$dir,size=2g,prealloc,reuse
define process name=reader,instances=2
{
  thread name=r,memsize=1m,instances=2
  {
    flowop read name=rr,filename=big,random,iosize=16k,directio
    flowop finishonbytes name=enough,value=256m
  }
}
