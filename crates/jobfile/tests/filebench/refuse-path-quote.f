#% var where=/mnt/a"b
# A path with a double quote (here from the command line) cannot be
# written into the filesets key.
set $dir=/srv/q
define fileset name=a,path=$dir,entries=10,size=4k,prealloc
define fileset name=b,
  path=$where,entries=10,size=4k,prealloc
define process name=p {
  thread name=t {
    flowop statfile name=s1,filesetname=b
  }
}
run 1
