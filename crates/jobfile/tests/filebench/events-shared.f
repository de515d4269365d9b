# Two processes wait on one eventgen: filebench's single queue gives
# them 10 events/s together, so each flow gets 5 (1 thread each).
set $dir=/srv/ev
eventgen rate=10
define fileset name=s,path=$dir,entries=100,size=4k,prealloc
define process name=a {
  thread name=t {
    flowop statfile name=st,filesetname=s
    flowop eventlimit name=e
  }
}
define process name=b {
  thread name=t {
    flowop statfile name=st,filesetname=s
    flowop eventlimit name=e
  }
}
run 2
