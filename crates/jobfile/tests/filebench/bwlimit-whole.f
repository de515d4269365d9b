# bwlimit on whole-file reads (8 events a second = 8 MiB/s of files of
# 256 KiB: 32 files a second, 96 operations with their opens and
# closes), and finishonbytes with a target.
set $dir=/srv/bw
eventgen rate=8
define fileset name=docs,path=$dir,size=256k,entries=100,dirwidth=10,prealloc
define process name=reader,instances=1
{
  thread name=r,memsize=1m,instances=4
  {
    flowop openfile name=o,filesetname=docs,fd=1
    flowop readwholefile name=whole,fd=1,iosize=64k
    flowop closefile name=c,fd=1
    flowop bwlimit name=cap,target=whole
    flowop finishonbytes name=stop,value=64m,target=whole
  }
}
run 30
