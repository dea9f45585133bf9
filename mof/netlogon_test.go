package mof

import (
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

// netLogonMOF describes the classic "Active Directory: NetLogon" server
// authentication events as a user would for -import. It is written for
// this test from the field list Windows reports for the class
// (jdu2600/Windows10EtwEvents, mof/Active_Directory-_NetLogon.tsv: type
// 1 NlServerAuth_Start(Client, Account, ChannelType, NegotiatedFlags),
// type 2 NlServerAuth_End(…, Status), version 0); the strings are UTF-16
// as the payloads show.
const netLogonMOF = `
// Active Directory: NetLogon, server authentication events.
#pragma namespace("\\\\.\\root\\wmi")

[abstract]
class EventTrace
{
};

[Dynamic, Description("Active Directory: NetLogon") : amended]
class NetLogon : EventTrace
{
};

[Dynamic,
 Description("NetLogon Server Authentication") : amended,
 Guid("{393da8c0-dbed-11d2-895b-00c04f79ab69}"),
 EventVersion(0),
 DisplayName("NlServerAuth") : amended]
class NlServerAuth : NetLogon
{
};

[Dynamic, EventType(1), EventTypeName("Start") : amended]
class NlServerAuth_Start : NlServerAuth
{
    [WmiDataId(1), StringTermination("NullTerminated"), format("w"), read] string Client;
    [WmiDataId(2), StringTermination("NullTerminated"), format("w"), read] string Account;
    [WmiDataId(3), read] uint32 ChannelType;
    [WmiDataId(4), format("x"), read] uint32 NegotiatedFlags;
};

[Dynamic, EventType(2), EventTypeName("End") : amended]
class NlServerAuth_End : NlServerAuth
{
    [WmiDataId(1), StringTermination("NullTerminated"), format("w"), read] string Client;
    [WmiDataId(2), StringTermination("NullTerminated"), format("w"), read] string Account;
    [WmiDataId(3), read] uint32 ChannelType;
    [WmiDataId(4), format("x"), read] uint32 NegotiatedFlags;
    [WmiDataId(5), format("x"), read] uint32 Status;
};
`

// TestCorpusNetLogon decodes the 200 classic NetLogon events of the
// Zerologon sample with schemas compiled from a user-supplied MOF.
func TestCorpusNetLogon(t *testing.T) {
	path := etltest.CorpusFile(t, "sbousseaden+EVTX-ATTACK-SAMPLES/Credential Access/etw_ad_netlogon_provider_zerologon_mimikatz.etl")
	f, err := Parse(strings.NewReader(netLogonMOF), "netlogon.mof")
	if err != nil {
		t.Fatal(err)
	}
	evs, errs := f.Schemas()
	if len(errs) != 0 || len(evs) != 2 {
		t.Fatal(evs, errs)
	}
	if evs[0].ProviderName != "NetLogon" || evs[0].EventName != "NlServerAuth" || evs[1].OpcodeName != "End" {
		t.Errorf("names %+v", evs[0])
	}
	reg := tdh.NewRegistry()
	reg.Add(evs...)
	RegisterKernel(reg)
	var dec Decoder
	decoded, classic, other := 0, 0, 0
	seen := map[string]bool{}
	etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
		s, ok := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
		if !ok {
			t.Errorf("no schema for %v type %d", ev.ProviderID, ev.Descriptor.Opcode)
			return
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil || len(d.Extra) != 0 {
			t.Errorf("%s/%s: %v, %d bytes left", s.EventName, s.OpcodeName, err, len(d.Extra))
			return
		}
		text := s.EventName + "/" + s.OpcodeName + ": " + string(tdh.AppendPropertiesJSON(nil, d))
		if ev.ProviderID == evs[0].ProviderGUID {
			classic++
		} else {
			other++
		}
		if !seen[s.OpcodeName] {
			seen[s.OpcodeName] = true
			t.Log(text)
		}
		decoded++
	})
	if classic != 200 {
		t.Errorf("%d NetLogon events decoded, want 200", classic)
	}
	want := `NlServerAuth/End: {"Client":"mimikatz","Account":"01566S-WIN16-IR$","ChannelType":6,"NegotiatedFlags":"0x212FFFFF","Status":"0xC0000022"}`
	found := false
	etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
		if found || ev.ProviderID != evs[0].ProviderGUID || ev.Descriptor.Opcode != 2 {
			return
		}
		s, _ := reg.Lookup(ev.ProviderID, 2, 0)
		d, _ := dec.Decode(s, ev.UserData, ev.PointerSize())
		if got := s.EventName + "/" + s.OpcodeName + ": " + string(tdh.AppendPropertiesJSON(nil, d)); got != want {
			t.Errorf("first End event:\n got %s\nwant %s", got, want)
		}
		found = true
	})
	t.Logf("%d events decoded: %d NetLogon, %d EventTrace", decoded, classic, other)
}
