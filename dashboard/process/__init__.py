"""What the process shares between every session: `server` (the run, result and team stores, the
job runner, the bounded cache, the stop on SIGTERM; plain Python), `shared` (the one `Server`, as
Streamlit keeps it), `cache` (`BoundedCache`, least recently used entries evicted past a byte
budget) and `arguments` (the app's own command line). No per-user state."""
