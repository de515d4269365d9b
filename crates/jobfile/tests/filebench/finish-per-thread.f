# A targeted finishoncount counts the target per thread: 4 threads each
# do 10 stats before the run ends (40 passes of 2 steps).
set $dir=/srv/fin
define fileset name=s,path=$dir,entries=100,size=4k,prealloc
define process name=w {
  thread name=t,instances=4 {
    flowop statfile name=st,filesetname=s
    flowop deletefile name=del,filesetname=s
    flowop finishoncount name=stop,value=10,target=st
  }
}
run
