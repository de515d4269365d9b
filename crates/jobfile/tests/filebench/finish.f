# finishoncount on a target and finishonbytes: the run ends on the
# smaller... each is an end of its own; here one thread counts fsyncs.
set $dir=/srv/fin
set mode quit firstdone
define file name=journal,path=$dir,size=0,prealloc
define process name=logger,instances=1
{
  thread name=l,memsize=1m,instances=1
  {
    flowop appendfile name=add,filename=journal,iosize=8k,iters=64,dsync
    flowop fsync name=flush
    flowop finishoncount name=stop,value=50,target=flush
  }
}
run
