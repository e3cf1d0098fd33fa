"""The CBV 2.0 standard vocabularies, and one canonical spelling for each of their values.

A CBV value may be written as a bare word (`shipping`, JSON-LD only), a CBV URN
(`urn:epcglobal:cbv:bizstep:shipping`), a GS1 Web URI
(`https://ref.gs1.org/cbv/BizStep-shipping`) or a CURIE of the EPCIS context's `cbv`
prefix (`cbv:BizStep-shipping`, JSON-LD only). The Web URI is canonical: the event hash
uses it, and so do the query indexes, so every spelling finds every other.
"""

from typing import NamedTuple


class Vocabulary(NamedTuple):
    """One CBV vocabulary: its Web URI prefix, its legacy URN prefix and its standard words."""

    web_prefix: str
    urn_prefix: str | None
    words: frozenset[str]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


BIZ_STEPS = _words(
    """
    accepting arriving assembling collecting commissioning consigning creating_class_instance
    cycle_counting decommissioning departing destroying disassembling dispensing encoding
    entering_exiting holding inspecting installing killing loading other packing picking
    receiving removing repackaging repairing replacing reserving retail_selling sampling
    sensor_reporting shipping staging_outbound stock_taking stocking storing transporting
    unloading unpacking void_shipping
    """
)
DISPOSITIONS = _words(
    """
    active available completeness_verified completeness_inferred conformant container_closed
    container_open damaged destroyed dispensed disposed encoded expired in_progress in_transit
    inactive mismatch_instance mismatch_class mismatch_quantity needs_replacement
    no_pedigree_match non_conformant non_sellable_other partially_dispensed recalled reserved
    retail_sold returned sellable_accessible sellable_not_accessible stolen unavailable unknown
    """
)
BIZ_TRANSACTION_TYPES = _words(
    "bol cert desadv inv pedigree po poc prodorder recadv rma testprd testres upevt"
)
SOURCE_DESTINATION_TYPES = _words("owning_party possessing_party location")
ERROR_REASONS = _words("did_not_occur incorrect_data")
MEASUREMENT_TYPES = _words(
    """
    AbsoluteHumidity AbsorbedDose AbsorbedDoseRate Acceleration Radioactivity Altitude
    AmountOfSubstance AmountOfSubstancePerUnitVolume Angle AngularAcceleration AngularMomentum
    AngularVelocity Area Capacitance Conductance Conductivity Count Density Dimensionless
    DoseEquivalent DoseEquivalentRate DynamicViscosity ElectricCharge ElectricCurrent
    ElectricCurrentDensity ElectricFieldStrength Energy Exposure Force Frequency Illuminance
    Inductance Irradiance KinematicViscosity Length LinearMomentum Luminance LuminousFlux
    LuminousIntensity MagneticFlux MagneticFluxDensity MagneticVectorPotential Mass
    MassConcentration MassFlowRate MassPerAreaTime MemoryCapacity MolalityOfSolute MolarEnergy
    MolarMass MolarVolume Power Pressure RadiantFlux RadiantIntensity RelativeHumidity
    Resistance Resistivity SolidAngle SpecificVolume Speed SurfaceDensity SurfaceTension
    Temperature Time Torque Voltage Volume VolumeFlowRate VolumeFraction VolumetricFlux
    Wavenumber
    """
)
SENSOR_EXCEPTIONS = _words("ALARM_CONDITION ERROR_CONDITION")
COMPONENTS = _words(
    """
    x y z axial_distance azimuth height spherical_radius polar_angle elevation_angle easting
    northing latitude longitude altitude
    """
)

_CBV = "https://ref.gs1.org/cbv/"
_GS1_VOC = "https://gs1.org/voc/"
CBV_URN_ROOT = "urn:epcglobal:cbv:"
#: The CURIE prefix the EPCIS 2.0 JSON-LD context binds to the CBV's Web URI namespace.
CBV_CURIE = "cbv:"

VOCABULARIES: dict[str, Vocabulary] = {
    "bizStep": Vocabulary(_CBV + "BizStep-", CBV_URN_ROOT + "bizstep:", BIZ_STEPS),
    "disposition": Vocabulary(_CBV + "Disp-", CBV_URN_ROOT + "disp:", DISPOSITIONS),
    "bizTransactionType": Vocabulary(_CBV + "BTT-", CBV_URN_ROOT + "btt:", BIZ_TRANSACTION_TYPES),
    "sourceDestType": Vocabulary(_CBV + "SDT-", CBV_URN_ROOT + "sdt:", SOURCE_DESTINATION_TYPES),
    "errorReason": Vocabulary(_CBV + "ER-", CBV_URN_ROOT + "er:", ERROR_REASONS),
    "measurementType": Vocabulary(_GS1_VOC, None, MEASUREMENT_TYPES),
    "sensorException": Vocabulary(_GS1_VOC, None, SENSOR_EXCEPTIONS),
    "component": Vocabulary(_CBV + "Comp-", None, COMPONENTS),
}
VOCABULARY_KINDS = tuple(VOCABULARIES)

# URN prefix → Web URI prefix, for every vocabulary that had a URN form in CBV 1.x.
_URN_TO_WEB = tuple(
    (vocabulary.urn_prefix, vocabulary.web_prefix)
    for vocabulary in VOCABULARIES.values()
    if vocabulary.urn_prefix is not None
)


def is_standard_bare_word(kind: str, value: str) -> bool:
    """Whether `value` is a standard word of the vocabulary `kind` (e.g. `bizStep`)."""
    vocabulary = VOCABULARIES.get(kind)
    return vocabulary is not None and value in vocabulary.words


def normalise_cbv(kind: str, value: str) -> str:
    """The GS1 Web URI of a CBV value written as bare word, URN, `cbv:` CURIE or Web URI;
    others unchanged.

    A bare word is expanded only when it is a standard word of `kind`; a CBV URN maps to
    its Web URI whatever its word, as the two namespaces correspond one to one, and a
    `cbv:` CURIE is expanded as the EPCIS context binds the prefix (a document that binds
    `cbv` itself has had its CURIEs expanded by then).
    """
    vocabulary = VOCABULARIES.get(kind)
    if vocabulary is not None and value in vocabulary.words:
        return vocabulary.web_prefix + value
    if value.startswith(CBV_CURIE) and not value.startswith("cbv://"):
        return _CBV + value[len(CBV_CURIE) :]
    if value.startswith(CBV_URN_ROOT):
        for urn_prefix, web_prefix in _URN_TO_WEB:
            if value.startswith(urn_prefix):
                return web_prefix + value[len(urn_prefix) :]
    return value


def is_standard_value(kind: str, value: str) -> bool:
    """Whether `value`, in any of its spellings, is a standard value of the vocabulary `kind`."""
    vocabulary = VOCABULARIES.get(kind)
    if vocabulary is None:
        return False
    canonical = normalise_cbv(kind, value)
    prefix = vocabulary.web_prefix
    return canonical.startswith(prefix) and canonical[len(prefix) :] in vocabulary.words


def replace_cbv_urns(text: str) -> str:
    """Every CBV URN prefix inside `text` replaced by its Web URI prefix, as the hash does."""
    if CBV_URN_ROOT not in text:
        return text
    for urn_prefix, web_prefix in _URN_TO_WEB:
        text = text.replace(urn_prefix, web_prefix)
    return text
