# finishoncount without a target: filebench counts the appends and the
# finishoncount itself, not the open and close iolab adds around the
# file the append names: 300 counted are 150 passes of 3 steps.
set $dir=/srv/fin
define file name=big,path=$dir,size=0,prealloc
define process name=w {
  thread name=t {
    flowop appendfile name=app,filename=big,iosize=64k
    flowop finishoncount name=stop,value=300
  }
}
run
