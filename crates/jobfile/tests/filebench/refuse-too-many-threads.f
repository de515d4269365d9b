# 17 thread definitions of 4096 threads each: more than 65,536 together.
set $dir=/srv/q
define fileset name=a,path=$dir,entries=10,size=4k,prealloc
define process name=p {
  thread name=t1,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t2,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t3,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t4,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t5,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t6,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t7,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t8,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t9,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t10,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t11,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t12,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t13,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t14,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t15,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t16,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
  thread name=t17,instances=4096 {
    flowop statfile name=s1,filesetname=a
  }
}
run 1
