import pytest

from netsift import errors

LEAVES = [
    cls
    for cls in vars(errors).values()
    if isinstance(cls, type)
    and issubclass(cls, errors.NetsiftError)
    and cls not in (errors.Blocked, errors.FetchFailed, errors.ProviderFailed)
]


def test_every_leaf_has_a_unique_stable_code():
    codes = [cls.code for cls in LEAVES]
    assert len(codes) == len(set(codes))
    assert all(code == code.lower() and " " not in code for code in codes)


@pytest.mark.parametrize("cls", LEAVES)
def test_class_name_is_the_camel_case_of_its_code(cls):
    if cls is errors.NetsiftError:
        return
    camel = "".join(part.capitalize() for part in cls.code.split("_"))
    assert cls.__name__.lower() == camel.lower()


def test_groups_carry_status_and_exit_codes():
    assert errors.BlockedAddress("x").exit_code == 3
    assert errors.BlockedByRobots("x").status == 403
    wall = errors.BlockedBySite("x", details={"wall": "captcha"})
    assert wall.status == 403 and wall.exit_code == 3 and not wall.retryable
    assert wall.to_dict()["code"] == "blocked_by_site"
    assert errors.Timeout("x").status == 504 and errors.Timeout("x").retryable
    assert errors.TooLarge("x").status == 413
    assert errors.Disabled("x").exit_code == 5
    assert errors.InvalidURL("x").exit_code == 2
    assert errors.AllProvidersFailed("x").exit_code == 4
    assert errors.Unauthorized("x").status == 401 and errors.Unauthorized("x").exit_code == 5
    assert not errors.Unauthorized("x").retryable


def test_http_error_keeps_the_status_and_maps_404():
    err = errors.HTTPError("gone", status_code=404)
    assert err.details["status"] == 404 and err.http_status == 404 and not err.retryable
    assert errors.HTTPError("down", status_code=503).retryable
    assert errors.HTTPError("refused", status_code=None).retryable


def test_round_trip_through_dict():
    for err in (
        errors.RateLimited("slow down", retry_after=2.5, details={"provider": "brave"}),
        errors.HTTPError("nope", status_code=500),
        errors.BlockedAddress("no", details={"host": "x"}),
        errors.NetsiftError("boom"),
        errors.Unauthorized("no key", details={"scheme": "bearer"}),
    ):
        back = errors.error_from_dict(err.to_dict())
        assert type(back) is type(err)
        assert back.to_dict() == err.to_dict()
