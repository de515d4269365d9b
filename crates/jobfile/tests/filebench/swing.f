# A create phase and a delete phase, each a composite or flowop repeated
# once per file: the creating thread's pass is one block 500 times over,
# which iolab runs as that block a pass. block/wakeup are dropped.
set $dir=/srv/swing
set $n=500
define fileset name=many,path=$dir,size=64k,entries=$n,dirwidth=100
define flowop name=makeone
{
  flowop createfile name=mk,filesetname=many,fd=1
  flowop writewholefile name=fill,filesetname=many,fd=1,iosize=64k
  flowop closefile name=done,fd=1
}
define process name=maker {
  thread name=m {
    flowop makeone name=all,iters=$n
    flowop wakeup name=go,target=wait
    flowop block name=hold
  }
}
define process name=remover {
  thread name=r {
    flowop block name=wait
    flowop deletefile name=rm,filesetname=many,iters=$n
    flowop wakeup name=back,target=hold
  }
}
run 20
