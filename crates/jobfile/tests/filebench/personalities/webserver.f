#
# iolab's test copy of the webserver personality: each pass reads ten
# whole pages and appends a line to the one log file. Values: filebench
# 1.5's defaults; iolab's --personality webserver must plan the same.

set $dir=/tmp
set $nfiles=1000
set $meandirwidth=20
set $filesize=cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)
set $nthreads=100
set $iosize=1m
set $meanappendsize=16k

define fileset name=bigfileset,path=$dir,entries=$nfiles,dirwidth=$meandirwidth,size=$filesize,prealloc=100,readonly
define fileset name=logfiles,path=$dir,entries=1,dirwidth=$meandirwidth,size=$filesize,prealloc

define process name=filereader,instances=1
{
  thread name=httpd,memsize=10m,instances=$nthreads
  {
    flowop openfile name=page1,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve1,fd=1,iosize=$iosize
    flowop closefile name=served1,fd=1
    flowop openfile name=page2,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve2,fd=1,iosize=$iosize
    flowop closefile name=served2,fd=1
    flowop openfile name=page3,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve3,fd=1,iosize=$iosize
    flowop closefile name=served3,fd=1
    flowop openfile name=page4,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve4,fd=1,iosize=$iosize
    flowop closefile name=served4,fd=1
    flowop openfile name=page5,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve5,fd=1,iosize=$iosize
    flowop closefile name=served5,fd=1
    flowop openfile name=page6,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve6,fd=1,iosize=$iosize
    flowop closefile name=served6,fd=1
    flowop openfile name=page7,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve7,fd=1,iosize=$iosize
    flowop closefile name=served7,fd=1
    flowop openfile name=page8,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve8,fd=1,iosize=$iosize
    flowop closefile name=served8,fd=1
    flowop openfile name=page9,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve9,fd=1,iosize=$iosize
    flowop closefile name=served9,fd=1
    flowop openfile name=page10,filesetname=bigfileset,fd=1
    flowop readwholefile name=serve10,fd=1,iosize=$iosize
    flowop closefile name=served10,fd=1
    flowop appendfilerand name=accesslog,filesetname=logfiles,fd=2,iosize=$meanappendsize
  }
}

echo "iolab test: webserver"
run 60
