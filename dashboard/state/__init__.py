"""The tab's state: `session` (the typed per-tab `Session` under one key of ``st.session_state``,
the live τ/n knobs' keys), `url` (the query string that reopens a view), `identity` (the sign-in as
Streamlit knows it, the app's own arguments). Starts no work."""
