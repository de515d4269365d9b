#
# iolab's test copy of the fileserver personality, written for the
# equality test (crates/jobfile/tests/filebench_personalities.rs): the
# values are filebench 1.5's defaults; iolab's --personality fileserver
# must plan the same workload.
#
# Each of the threads makes a file and writes it whole, appends to
# another, reads a third whole, deletes a fourth and stats a fifth.

set $dir=/tmp
set $nfiles=10000
set $meandirwidth=20
set $filesize=cvar(type=cvar-gamma,parameters=mean:131072;gamma:1.5)
set $nthreads=50
set $iosize=1m
set $meanappendsize=16k
set $runtime=60

define fileset name=bigfileset,path=$dir,entries=$nfiles,dirwidth=$meandirwidth,size=$filesize,prealloc=80

define process name=filereader,instances=1
{
  thread name=fsworker,memsize=10m,instances=$nthreads
  {
    flowop createfile name=mk,filesetname=bigfileset,fd=1
    flowop writewholefile name=fill,fd=1,srcfd=1,iosize=$iosize
    flowop closefile name=mkdone,fd=1
    flowop openfile name=opena,filesetname=bigfileset,fd=1
    flowop appendfilerand name=grow,fd=1,iosize=$meanappendsize
    flowop closefile name=adone,fd=1
    flowop openfile name=openr,filesetname=bigfileset,fd=1
    flowop readwholefile name=readall,fd=1,iosize=$iosize
    flowop closefile name=rdone,fd=1
    flowop deletefile name=rm,filesetname=bigfileset
    flowop statfile name=look,filesetname=bigfileset
  }
}

echo "iolab test: fileserver"
run $runtime
