# filebench opens with the dsync and directio of the flowop that opens
# the file: the writes on fd 1 are O_SYNC and O_DIRECT (their own flags
# would change nothing); the stat-and-append flow opens buffered.
set $dir=/srv/flags
define fileset name=a,path=$dir,entries=10,size=64k,prealloc
define process name=p {
  thread name=t {
    flowop openfile name=o,filesetname=a,fd=1,dsync,directio
    flowop write name=w,fd=1,iosize=4k,random
    flowop closefile name=c,fd=1
    flowop appendfile name=app,filesetname=a,iosize=4k
  }
}
define process name=q {
  thread name=t {
    flowop openfile name=o2,filesetname=a,fd=1
    flowop read name=r,fd=1,iosize=4k,directio
    flowop closefile name=c2,fd=1
  }
}
run 1
