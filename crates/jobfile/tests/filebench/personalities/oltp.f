#
# iolab's test copy of the oltp personality: a log writer, database
# writers and shadow readers on 10 data files and a log, writes O_DSYNC.
# Values: filebench 1.5's defaults; iolab's --personality oltp must plan
# the same workload (semaphores, hog and aiowait have no equivalent:
# docs/filesystem.md).

set $dir=/tmp
set $eventrate=0
set $iosize=2k
set $nshadows=200
set $ndbwriters=10
set $usermode=200000
set $filesize=10m
set $memperthread=1m
set $workingset=0
set $logfilesize=10m
set $nfiles=10
set $nlogfiles=1
set $directio=0

eventgen rate = $eventrate

define fileset name=datafiles,path=$dir,entries=$nfiles,dirwidth=1024,size=$filesize,prealloc=100,reuse
define fileset name=logfile,path=$dir,entries=$nlogfiles,dirwidth=1024,size=$logfilesize,prealloc=100,reuse

define process name=lgwr,instances=1
{
  thread name=logwriter,memsize=$memperthread,useism
  {
    flowop aiowrite name=redo,filesetname=logfile,
        iosize=256k,random,directio=$directio,dsync
    flowop aiowait name=redowait
    flowop semblock name=redogate,value=3200,highwater=1000
  }
}

define process name=dbwr,instances=$ndbwriters
{
  thread name=dbwriter,memsize=$memperthread,useism
  {
    flowop aiowrite name=flush,filesetname=datafiles,
        iosize=$iosize,workingset=$workingset,random,iters=100,opennext,directio=$directio,dsync
    flowop hog name=flushcpu,value=10000
    flowop semblock name=flushgate,value=1000,highwater=2000
    flowop aiowait name=flushwait
  }
}

define process name=shadow,instances=$nshadows
{
  thread name=reader,memsize=$memperthread,useism
  {
    flowop read name=query,filesetname=datafiles,
      iosize=$iosize,workingset=$workingset,random,opennext,directio=$directio
    flowop hog name=querycpu,value=$usermode
    flowop sempost name=tolog,value=1,target=redogate,blocking
    flowop sempost name=todb,value=1,target=flushgate,blocking
    flowop eventlimit name=pacer
  }
}

echo "iolab test: oltp"
run 60
