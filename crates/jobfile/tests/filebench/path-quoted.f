# A second fileset's path with a space, and one that tries to close the
# fileset and add another: both go quoted into the filesets key.
set $dir=/srv/q
define fileset name=a,path=$dir,entries=10,size=4k,prealloc
define fileset name=b,path="/mnt/my dir",entries=10,size=4k,prealloc
define fileset name=c,path="/x) | d(files=1 path=/y/inj",entries=10,size=4k,prealloc
define process name=p {
  thread name=t {
    flowop statfile name=s1,filesetname=b
    flowop statfile name=s2,filesetname=c
  }
}
run 1
