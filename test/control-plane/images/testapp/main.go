// testapp: the one program every real-node test pod runs, its behaviour chosen by its args, so
// each pod verdict family is a manifest, not an image (test/control-plane/images.ts packs it).
//
//	testapp pause                    the sandbox (pause) container: wait for SIGTERM/SIGINT
//	testapp [flags]                  print -print lines, then, in this order:
//	  -crash-once FILE               exit 1 when FILE does not exist (creating it), else go on
//	  -alloc-mib N                   touch N MiB of memory and hold it (OOMKilled under a lower limit)
//	  -fill FILE -fill-mib N         write N MiB to FILE (an emptyDir past its sizeLimit is evicted),
//	                                 -fill-after D later (in the background)
//	  -exit N -after D               exit N after D (with -serve: serve until then)
//	  -serve ADDR                    serve HTTP: / and /healthz 200, /ready 200 unless -ready-fail;
//	                                 /healthz 500 from -live-fail-after D on
//	                                 otherwise wait for SIGTERM, then exit -term-exit (default 0)
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "pause" {
		waitForSignal()
		return
	}
	var (
		print         = flag.String("print", "", "lines to print first, separated by |")
		crashOnce     = flag.String("crash-once", "", "exit 1 the first time (FILE marks it)")
		allocMiB      = flag.Int("alloc-mib", 0, "MiB of memory to touch and hold")
		fill          = flag.String("fill", "", "file to write -fill-mib MiB to")
		fillMiB       = flag.Int("fill-mib", 0, "MiB to write to -fill")
		fillAfter     = flag.Duration("fill-after", 0, "when to write -fill")
		exitCode      = flag.Int("exit", -1, "exit with this code after -after")
		after         = flag.Duration("after", 0, "when to exit with -exit")
		serve         = flag.String("serve", "", "address to serve HTTP on")
		readyFail     = flag.Bool("ready-fail", false, "answer /ready with 500")
		liveFailAfter = flag.Duration("live-fail-after", 0, "answer /healthz with 500 from then on")
		termExit      = flag.Int("term-exit", 0, "exit code after SIGTERM")
	)
	flag.Parse()
	started := time.Now()
	if *print != "" {
		for _, line := range strings.Split(*print, "|") {
			fmt.Println(line)
		}
	}
	if *crashOnce != "" {
		if _, err := os.Stat(*crashOnce); err != nil {
			_ = os.WriteFile(*crashOnce, []byte("crashed once\n"), 0o644)
			fmt.Println("first start: exiting 1 once")
			os.Exit(1)
		}
		fmt.Println("started again: running")
	}
	var held [][]byte
	if *allocMiB > 0 {
		fmt.Printf("allocating %d MiB\n", *allocMiB)
		for i := 0; i < *allocMiB; i++ {
			chunk := make([]byte, 1<<20)
			for j := range chunk {
				if j%4096 == 0 {
					chunk[j] = 1
				}
			}
			held = append(held, chunk)
		}
		fmt.Printf("holding %d MiB\n", len(held))
	}
	if *fill != "" {
		go func() {
			time.Sleep(*fillAfter)
			fmt.Printf("writing %d MiB to %s\n", *fillMiB, *fill)
			if err := fillFile(*fill, *fillMiB); err != nil {
				fmt.Fprintf(os.Stderr, "fill: %v\n", err)
			}
		}()
	}
	if *serve != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
		mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
			if *readyFail {
				http.Error(w, "not ready: -ready-fail", http.StatusInternalServerError)
				return
			}
			fmt.Fprintln(w, "ready")
		})
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
			if *liveFailAfter > 0 && time.Since(started) > *liveFailAfter {
				http.Error(w, "unhealthy: -live-fail-after", http.StatusInternalServerError)
				return
			}
			fmt.Fprintln(w, "ok")
		})
		go func() {
			if err := http.ListenAndServe(*serve, mux); err != nil {
				fmt.Fprintf(os.Stderr, "serve: %v\n", err)
				os.Exit(2)
			}
		}()
	}
	if *exitCode >= 0 {
		time.Sleep(*after)
		fmt.Printf("exiting with %d\n", *exitCode)
		os.Exit(*exitCode)
	}
	waitForSignal()
	_ = held
	os.Exit(*termExit)
}

func fillFile(path string, mib int) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	defer file.Close()
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	for i := 0; i < mib; i++ {
		if _, err := file.Write(chunk); err != nil {
			return err
		}
	}
	return file.Sync()
}

func waitForSignal() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
}
