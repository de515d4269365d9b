set $dir=/srv/q
define fileset name=..,path=$dir,entries=10,size=4k,prealloc
define process name=p {
  thread name=t {
    flowop statfile name=s1,filesetname=..
  }
}
run 1
