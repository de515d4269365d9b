# A caching proxy: evict and refetch one object, serve five. No run line
# (filebench's default of 60 s) and an opslimit without an event rate.
set $dir=/srv/cache
set $objects=10000
set $objsize=16k
set $fetch=16k

define fileset name=bigfileset,path=$dir,size=$objsize,entries=$objects,dirwidth=1000000,prealloc=80
define process name=proxycache,instances=1
{
  thread name=proxy,memsize=10m,instances=100
  {
    flowop deletefile name=evict,filesetname=bigfileset
    flowop createfile name=store,filesetname=bigfileset,fd=1
    flowop appendfilerand name=fill,iosize=$fetch,fd=1
    flowop closefile name=stored,fd=1
    flowop openfile name=o1,filesetname=bigfileset,fd=1
    flowop readwholefile name=r1,fd=1,iosize=1m
    flowop closefile name=c1,fd=1
    flowop openfile name=o2,filesetname=bigfileset,fd=1
    flowop readwholefile name=r2,fd=1,iosize=1m
    flowop closefile name=c2,fd=1
    flowop openfile name=o3,filesetname=bigfileset,fd=1
    flowop readwholefile name=r3,fd=1,iosize=1m
    flowop closefile name=c3,fd=1
    flowop openfile name=o4,filesetname=bigfileset,fd=1
    flowop readwholefile name=r4,fd=1,iosize=1m
    flowop closefile name=c4,fd=1
    flowop openfile name=o5,filesetname=bigfileset,fd=1
    flowop readwholefile name=r5,fd=1,iosize=1m
    flowop closefile name=c5,fd=1
    flowop opslimit name=cap
  }
}
