"""What the process shares between every session: `server` (the run, result and team stores, the
job runner, the bounded cache, the stop on SIGTERM) and `cache` (`BoundedCache`, least recently
used entries evicted past a byte budget). No per-user state."""
