import Testing
import WebAppLaunchReload

/// The reload decisions, synchronously: one load at a time, and a request during a load is
/// never lost (postgres-nio's pool state machine tests are the model).
@Suite("Reload decisions: one load at a time, requests during a load coalesce into one more")
struct ReloadStateMachineTests {
    @Test("an idle machine starts a load and is idle again when it finishes")
    func idleLoad() {
        var machine = ReloadStateMachine()
        #expect(machine.reloadRequested() == .startLoading)
        #expect(machine.isLoading)
        #expect(machine.loadFinished(swapped: true) == .done)
        #expect(!machine.isLoading)
        #expect(machine.generation == 1)
    }

    @Test("requests during a load start no second load, and exactly one more load follows", arguments: [1, 2, 5])
    func coalesces(requestsDuringLoad: Int) {
        var machine = ReloadStateMachine()
        #expect(machine.reloadRequested() == .startLoading)
        for _ in 0..<requestsDuringLoad {
            #expect(machine.reloadRequested() == .coalesced)
        }
        #expect(machine.loadFinished(swapped: true) == .loadAgain)
        #expect(machine.isLoading)
        #expect(machine.loadFinished(swapped: true) == .done)
        #expect(machine.generation == 2)
    }

    @Test("a refused configuration does not count as a generation")
    func refusedKeepsGeneration() {
        var machine = ReloadStateMachine()
        _ = machine.reloadRequested()
        #expect(machine.loadFinished(swapped: false) == .done)
        #expect(machine.generation == 0)
        _ = machine.reloadRequested()
        #expect(machine.loadFinished(swapped: true) == .done)
        #expect(machine.generation == 1)
    }
}
