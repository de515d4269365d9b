# A one-flowop composite called with iters multiplies its iters: past
# iolab's most it is refused, not capped.
set $dir=/srv/q
define fileset name=a,path=$dir,entries=10,size=4k,prealloc
define flowop name=c0 {
  flowop statfile name=st,filesetname=a,iters=5000
}
define process name=p {
  thread name=t {
    flowop c0 name=x,iters=1000
    flowop deletefile name=del,filesetname=a
  }
}
run 1
