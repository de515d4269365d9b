# Random variables and cvars where iolab takes one number: a tabular
# randvar and a gamma randvar as transfer sizes, a uniform cvar, a
# gamma cvar of another shape as the file size.
set $dir=/srv/rv
set $fsize=cvar(type=cvar-gamma,parameters=mean:65536;gamma:2.5)
set $rsize=cvar(type=cvar-uniform,parameters=lower:4096;upper:12288)
define randvar name=$wsize, type=tabular, min=1k, round=1k, randtable =
{{ 60,  2k,  6k},
 { 30, 16k, 16k},
 { 10, 60k, 68k}
}
define randvar name=$asize, type=gamma, min=512, mean=6k, gamma=1500
set $idx = randvar(type=gamma, min=0, gamma=100)

define fileset name=data,path=$dir,size=$fsize,entries=500,dirwidth=50,prealloc=100

define process name=mixer,instances=1
{
  thread name=t,memsize=1m,instances=4
  {
    flowop openfile name=o,filesetname=data,indexed=$idx,fd=1
    flowop read name=r,fd=1,iosize=$rsize,random
    flowop write name=w,fd=1,iosize=$wsize,random,iters=2
    flowop appendfile name=a,fd=1,iosize=$asize
    flowop closefile name=c,fd=1
  }
}
enable lathist
run 20
