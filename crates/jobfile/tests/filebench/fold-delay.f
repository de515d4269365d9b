# A composite repeated 1000 times is folded to one repetition a pass;
# the delay after the 1000 comes once per filebench pass, so the flow's
# think time is a thousandth of it per folded pass.
set $dir=/srv/fold
define fileset name=a,path=$dir,entries=100,size=4k,prealloc
define flowop name=cc {
  flowop openfile name=o,filesetname=a,fd=1
  flowop read name=r,fd=1,iosize=4k
  flowop closefile name=c,fd=1
}
define process name=p {
  thread name=t {
    flowop cc name=x,iters=1000
    flowop delay name=d,value=1
  }
}
run 1
