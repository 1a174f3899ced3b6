"""The port mapping's life: renewed while open, removed on close, a failed renewal said."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2p66.net import portmap
from p2p66.net.portmap import Mapping, PortMapError, PortMapping, default_gateway

pytestmark = pytest.mark.timeout(20)


class FakeRouter:
    """Records what a PortMapping asks; ``fail_renewals`` makes renewals be refused."""

    method = "fake"
    address = "192.0.2.1"

    def __init__(self, fail_renewals: int = 0) -> None:
        self.adds: list[int] = []
        self.removed: list[Mapping] = []
        self.fail_renewals = fail_renewals
        self.renewed = asyncio.Event()
        self.removing = asyncio.Event()

    async def external_address(self) -> str | None:
        return "198.51.100.9"

    async def add(
        self, internal_address: str, port: int, external_port: int, lease: int
    ) -> Mapping:
        self.adds.append(external_port)
        if len(self.adds) > 1 and self.fail_renewals:
            self.fail_renewals -= 1
            raise PortMapError("refused for the test")
        if len(self.adds) >= 3:
            self.renewed.set()
        return Mapping("fake", self.address, "198.51.100.9", external_port, internal_address,
                       port, lease)  # fmt: skip

    async def remove(self, mapping: Mapping) -> None:
        self.removed.append(mapping)

    async def close(self) -> None:
        return None


def _session(router: FakeRouter) -> PortMapping:
    first = Mapping("fake", router.address, "198.51.100.9", 7000, "192.168.1.2", 7000, 2)
    router.adds.append(7000)
    return PortMapping(router, first)


def test_renewed_until_closed_then_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(portmap, "MIN_RENEW", 0.01)
    monkeypatch.setattr(portmap, "LEASE", 0)

    async def main() -> None:
        router = FakeRouter()
        session = _session(router)
        session.mapping = Mapping("fake", router.address, None, 7000, "192.168.1.2", 7000, 0)
        session.start_renewing()
        await asyncio.wait_for(router.renewed.wait(), 10)
        await session.aclose()
        count = len(router.adds)
        await asyncio.sleep(0.05)
        assert len(router.adds) == count  # no renewal after close
        assert [m.external_port for m in router.removed] == [7000]
        assert set(router.adds) == {7000}  # the same port every time

    asyncio.run(main())


def test_a_refused_renewal_is_reported_and_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(portmap, "MIN_RENEW", 0.01)
    monkeypatch.setattr(portmap, "LEASE", 0)

    async def main() -> None:
        router = FakeRouter(fail_renewals=1)
        problems: list[str] = []
        session = _session(router)
        session.on_problem = problems.append
        session.mapping = Mapping("fake", router.address, None, 7000, "192.168.1.2", 7000, 0)
        session.start_renewing()
        await asyncio.wait_for(router.renewed.wait(), 10)
        await session.aclose()
        assert problems == ["renewing the port mapping failed (will retry): refused for the test"]

    asyncio.run(main())


def test_a_stop_signal_during_the_removal_does_not_cut_it_short() -> None:
    """A SIGTERM that cancels the host while it already cleans up: the removal finishes."""

    class SlowRouter(FakeRouter):
        async def remove(self, mapping: Mapping) -> None:
            self.removing.set()
            await asyncio.sleep(0.2)
            self.removed.append(mapping)

    async def main() -> None:
        router = SlowRouter()
        closing = asyncio.create_task(_session(router).aclose())
        await router.removing.wait()
        closing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await closing
        assert [m.external_port for m in router.removed] == [7000]

    asyncio.run(main())


def test_default_gateway_from_the_routing_table(tmp_path: Path) -> None:
    table = tmp_path / "route"
    table.write_text(
        "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n"
        "eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
        "eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\n"
    )
    assert default_gateway(table) == "192.168.1.1"
    table.write_text("Iface\tDestination\tGateway\tFlags\n")
    assert default_gateway(table) is None
    assert default_gateway(tmp_path / "missing") is None
