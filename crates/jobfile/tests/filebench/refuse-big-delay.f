set $dir=/srv/q
define fileset name=a,path=$dir,entries=10,size=4k,prealloc
define process name=p {
  thread name=t {
    flowop statfile name=s1,filesetname=a
    flowop delay name=d,value=99999999999
  }
}
run 1
