package catalog

import "github.com/google/uuid"

// KnownProvider is a Windows component whose events the catalog cannot
// decode but can name, from public facts: the provider's name, what
// kind of provider it is and the file that would let -import decode it.
type KnownProvider struct {
	// GUID is the GUID its events carry: the provider GUID of manifest
	// providers, the class GUID of classic ones, the message GUID of WPP
	// traces.
	GUID uuid.UUID
	// Name is the provider's name (a classic provider's registered name,
	// a WPP trace's component).
	Name string
	// Kind is "manifest", "classic" (MOF) or "wpp".
	Kind string
	// Binary is the file that holds the provider's manifest, as Windows
	// registers it (%SystemRoot%\System32\…), or "" when it has none.
	Binary string
	// Needs says what decoding its events takes.
	Needs string
	// Source says where these facts come from.
	Source string
}

// Hint is one line for a person: the name and what decoding the
// provider's events takes.
func (k *KnownProvider) Hint() string {
	return k.Name + ": " + k.Needs
}

// knownProviders are the public facts of the Windows components seen
// without a schema in real traces (the corpus's PowerShell, NetLogon and
// OneDrive captures).
var knownProviders = []KnownProvider{
	{
		GUID:   uuid.MustParse("a0c1853b-5c40-4b15-8766-3cf1c58f985a"),
		Name:   "Microsoft-Windows-PowerShell",
		Kind:   "manifest",
		Binary: `%SystemRoot%\System32\WindowsPowerShell\v1.0\PSEvents.dll`,
		Needs:  `a manifest provider; its manifest is in %SystemRoot%\System32\WindowsPowerShell\v1.0\PSEvents.dll: -import a copy of that file`,
		Source: "the publisher's registered resource file (ResourceFilePath %windir%\\system32\\WindowsPowerShell\\v1.0\\PSEvents.dll) in " +
			"WEPExplorer's dump of Windows 11 22H2, nasbench/EVTX-ETW-Resources @ 80d8f8da58afe20e013d7725b6761074cfd23a46, " +
			"ETWProvidersManifests/Windows11/22H2/W11_22H2_Pro_20220920_22621.382/WEPExplorer/Microsoft-Windows-PowerShell.xml " +
			"(the repository and commit of /work/shared/schemas/dumped/nasbench-EVTX-ETW-Resources-W11-22H2)",
	},
	{
		GUID:  uuid.MustParse("393da8c0-dbed-11d2-895b-00c04f79ab69"),
		Name:  "Active Directory: NetLogon",
		Kind:  "classic",
		Needs: "a classic (MOF) provider, with no manifest to import: its events decode with a MOF file declaring its classes (NlServerAuth_Start, NlServerAuth_End), and none is public",
		Source: "the MOF class layouts TDH reports, jdu2600/Windows10EtwEvents @ 84e7261126f26b538ee00bcf00938b7e3ff2647f, " +
			"mof/Active_Directory-_NetLogon.tsv (/work/shared/schemas/dumped/jdu2600-tsv/26H1-28000/mof/); " +
			"no public MOF text: /work/shared/schemas/SOURCES.md",
	},
	{
		GUID:   uuid.MustParse("2818ef08-6a54-396f-2244-5a6ea4a98cf0"),
		Name:   "cldflt.sys (Cloud Files mini-filter)",
		Kind:   "wpp",
		Needs:  "a WPP trace, with no manifest: its messages decode only with the driver's TMF files (-tmf, -tp) or a PDB that holds them (-import); Microsoft's public symbols do not",
		Source: "/work/shared/schemas/SOURCES.md: WPP message GUID of cldflt.sys (OneDrive CldFlt traces), TMF only in Microsoft's private PDB",
	},
}

// LookupProvider returns what the catalog knows of a provider it has no
// schemas for, by the GUID its events carry.
func LookupProvider(g uuid.UUID) (*KnownProvider, bool) {
	for i := range knownProviders {
		if knownProviders[i].GUID == g {
			return &knownProviders[i], true
		}
	}
	return nil, false
}
