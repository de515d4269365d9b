#% var dir=
# dir= given empty on the command line.
set $dir=/srv/q
define fileset name=a,path=$dir,entries=10,size=4k,prealloc
define process name=p {
  thread name=t {
    flowop statfile name=s1,filesetname=a
  }
}
run 1
