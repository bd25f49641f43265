"""Keys for the jobs tests start on a `core.base.jobs.JobRunner` of their own: the runner takes a
typed `JobKey` only, of a declared `JobKind`."""
from artifact_lens.base.jobs import JobKey, JobKind
from artifact_lens.base.keys import data_key

TEST_JOBS = JobKind("test", "a test's job")


def job_key(name: str) -> JobKey:
    return JobKey(TEST_JOBS, data_key(name))
