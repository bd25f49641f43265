"""The tab's state: `session` (the typed per-tab `Session`, the live τ/n knobs' keys; plain Python),
`tab` (the `Tab` every service takes: that session and the process's server; `Identity`),
`browser` (where Streamlit keeps the session, and the tab a page gets), `url` (the query string
that reopens a view), `identity` (the sign-in as Streamlit knows it). Starts no work."""
