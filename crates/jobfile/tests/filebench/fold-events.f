# Folded pass with eventlimit: one event per filebench pass of 3000
# operations, so 2 events/s are 6000 operations/s.
set $dir=/srv/fold
eventgen rate=2
define fileset name=a,path=$dir,entries=100,size=4k,prealloc
define flowop name=cc {
  flowop openfile name=o,filesetname=a,fd=1
  flowop read name=r,fd=1,iosize=4k
  flowop closefile name=c,fd=1
}
define process name=p {
  thread name=t {
    flowop cc name=x,iters=1000
    flowop eventlimit name=e
  }
}
run 1
