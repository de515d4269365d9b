# Web pages read whole ten at a time, and a shared access log that each
# pass appends to on its own descriptor (fd 2, never opened by a flowop).
set $dir=/srv/www
set $pages=1000
set $width=20
set $pagesize=cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)
set $clients=100
set $rd=1m
set $logline=16k

define fileset name=bigfileset,path=$dir,size=$pagesize,entries=$pages,dirwidth=$width,prealloc=100,readonly
define fileset name=logfiles,path=$dir,size=$pagesize,entries=1,dirwidth=$width,prealloc

define flowop name=page
{
  flowop openfile name=get,filesetname=bigfileset,fd=1
  flowop readwholefile name=send,fd=1,iosize=$rd
  flowop closefile name=done,fd=1
}

define process name=filereader,instances=1
{
  thread name=httpd,memsize=10m,instances=$clients
  {
    flowop page name=p1
    flowop page name=p2
    flowop page name=p3
    flowop page name=p4
    flowop page name=p5
    flowop page name=p6
    flowop page name=p7
    flowop page name=p8
    flowop page name=p9
    flowop page name=p10
    flowop appendfilerand name=access,filesetname=logfiles,iosize=$logline,fd=2
  }
}
run 60
