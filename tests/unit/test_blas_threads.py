"""Φ, PVI and the certificate are the same numbers whatever BLAS thread count the process has
(issue 53, item 13): BLAS's sums depend on its thread count, and the count is one setting for the
whole process, so an evaluation running beside a certificate (which holds BLAS at one thread) or a
machine with more cores changed Φ by 1.6e-4 and V-information in its sixth decimal. The app's
certificate then differed from the CLI's, and a baseline made on a laptop from one made in CI."""
import tempfile

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from artifact_lens.certificate.measures import certify
from artifact_lens.certificate.schema import certificate_bytes
from artifact_lens.data.sources import load_dataset
from artifact_lens.evaluation.information import dataset_pvi
from artifact_lens.representations import default_spec, represent


@pytest.fixture(scope="module")
def snli_1000(snli_dev):
    ds = load_dataset(str(snli_dev))
    return ds.subset([str(i) for i in ds.ids[:1000]])


def _under(threads: int, fn):
    with threadpool_limits(limits=threads, user_api="blas"):
        return fn()


def test_phi_and_pvi_do_not_depend_on_the_blas_thread_count(snli_1000):
    spec = default_spec(snli_1000)

    def phi_and_pvi():
        X = np.asarray(represent(snli_1000, spec, cache_dir=False).X)
        return X, dataset_pvi(snli_1000, spec, cache_dir=tempfile.mkdtemp()).table["pvi"].to_numpy()

    (x2, p2), (x1, p1) = _under(2, phi_and_pvi), _under(1, phi_and_pvi)
    assert np.array_equal(x2, x1)
    assert np.array_equal(p2, p1)


def test_a_certificate_is_the_same_bytes_beside_another_job_or_alone(snli_1000):
    def cert():
        return certificate_bytes(certify(snli_1000, cache_dir=tempfile.mkdtemp()))

    assert _under(2, cert) == _under(1, cert)
