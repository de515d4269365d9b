# A database: a log writer, ten page writers and two hundred readers on
# shared data files; writes are O_DSYNC, attributes run over lines.
set $dir=/srv/db
set $events=0
set $page=2k
set $readers=200
set $writers=10
set $dio=0
eventgen rate = $events

define fileset name=datafiles,path=$dir,size=10m,entries=10,dirwidth=1024,prealloc=100,reuse
define fileset name=logfile,path=$dir,size=10m,entries=1,dirwidth=1024,prealloc=100,reuse

define process name=lgwr,instances=1
{
  thread name=lgwr,memsize=1m,useism
  {
    flowop aiowrite name=redo,filesetname=logfile,
        iosize=256k,random,directio=$dio,dsync
    flowop aiowait name=redowait
    flowop semblock name=redoblock,value=3200,highwater=1000
  }
}
define process name=dbwr,instances=$writers
{
  thread name=dbwr,memsize=1m,useism
  {
    flowop aiowrite name=flush,filesetname=datafiles,
        iosize=$page,workingset=0,random,iters=100,opennext,directio=$dio,dsync
    flowop hog name=cpu,value=10000
    flowop semblock name=flushblock,value=1000,highwater=2000
    flowop aiowait name=flushwait
  }
}
define process name=shadow,instances=$readers
{
  thread name=shadow,memsize=1m,useism
  {
    flowop read name=query,filesetname=datafiles,
      iosize=$page,workingset=0,random,opennext,directio=$dio
    flowop hog name=think,value=200000
    flowop sempost name=tolog,value=1,target=redoblock,blocking
    flowop sempost name=todb,value=1,target=flushblock,blocking
    flowop eventlimit name=pace
  }
}
run 60
