// Every SimpleEventQuery parameter with a fixed name, grouped as the search form shows them
// (tests/console/test_query_parameters.py checks the list against the service's own), and
// the families whose names carry a type or field, entered as name and value.

const TIME = "2024-05-01T00:00:00Z";
const EPC = "urn:epc:id:sgtin:… or https://id.gs1.org/01/…; * as a wildcard";
const PLACE = "urn:epc:id:sgln:… or a Digital Link";
const CBV = "shipping, in_transit or a URI";

export const GROUPS = [
  {
    title: "What happened",
    open: true,
    fields: [
      { name: "eventType", hint: "ObjectEvent, AggregationEvent, …", choices: ["ObjectEvent", "AggregationEvent", "TransactionEvent", "TransformationEvent", "AssociationEvent"] },
      { name: "EQ_action", choices: ["ADD", "OBSERVE", "DELETE"] },
      { name: "EQ_bizStep", hint: CBV },
      { name: "EQ_disposition", hint: "in_progress, …" },
      { name: "EQ_eventID", hint: "event IDs, comma-separated" },
      { name: "EQ_transformationID" },
      { name: "EQ_persistentDisposition_set" },
      { name: "EQ_persistentDisposition_unset" },
    ],
  },
  {
    title: "When",
    open: true,
    fields: [
      { name: "GE_eventTime", hint: TIME },
      { name: "LT_eventTime", hint: TIME },
      { name: "GE_recordTime", hint: TIME },
      { name: "LT_recordTime", hint: TIME },
    ],
  },
  {
    title: "Which objects",
    fields: [
      { name: "MATCH_anyEPC", hint: EPC },
      { name: "MATCH_epc", hint: EPC },
      { name: "MATCH_parentID", hint: EPC },
      { name: "MATCH_inputEPC", hint: EPC },
      { name: "MATCH_outputEPC", hint: EPC },
      { name: "MATCH_anyEPCClass", hint: EPC },
      { name: "MATCH_epcClass", hint: EPC },
      { name: "MATCH_inputEPCClass", hint: EPC },
      { name: "MATCH_outputEPCClass", hint: EPC },
      { name: "EQ_quantity", hint: "a number" },
      { name: "GT_quantity" },
      { name: "GE_quantity" },
      { name: "LT_quantity" },
      { name: "LE_quantity" },
    ],
  },
  {
    title: "Where",
    fields: [
      { name: "EQ_bizLocation", hint: PLACE },
      { name: "WD_bizLocation", hint: PLACE + " (and what is within)" },
      { name: "EQ_readPoint", hint: PLACE },
      { name: "WD_readPoint", hint: PLACE + " (and what is within)" },
    ],
  },
  {
    title: "Error declarations",
    fields: [
      { name: "EXISTS_errorDeclaration", flag: true },
      { name: "GE_errorDeclarationTime", hint: TIME },
      { name: "LT_errorDeclarationTime", hint: TIME },
      { name: "EQ_errorReason", hint: "incorrect_data, did_not_occur, …" },
      { name: "EQ_correctiveEventID" },
    ],
  },
  {
    title: "Sensor data",
    fields: [
      { name: "EXISTS_sensorElementList", flag: true },
      { name: "EQ_type", hint: "Temperature, … or a URI" },
      { name: "EQ_deviceID" },
      { name: "EQ_dataProcessingMethod" },
      { name: "EQ_microorganism" },
      { name: "EQ_chemicalSubstance" },
      { name: "EQ_bizRules" },
      { name: "EQ_stringValue" },
      { name: "EQ_hexBinaryValue" },
      { name: "EQ_uriValue" },
      { name: "EQ_booleanValue", choices: ["true", "false"] },
    ],
  },
  {
    title: "Order and size",
    fields: [
      { name: "orderBy", hint: "eventTime, recordTime or an extension field" },
      { name: "orderDirection", choices: ["ASC", "DESC"] },
      { name: "eventCountLimit", hint: "at most this many events" },
      { name: "maxEventCount", hint: "fail if more would match" },
      { name: "perPage", hint: "events a page (default 30 here)" },
    ],
  },
];

/** Parameters whose name carries a type, field or unit: entered as name = value. */
export const FAMILIES = [
  "EQ_bizTransaction_<type>",
  "EQ_source_<type>",
  "EQ_destination_<type>",
  "EQ|GT|GE|LT|LE|EXISTS_[INNER_][<scope>_]<field>",
  "EQ|GT|GE|LT|LE_<value|minValue|…>_<uom>",
  "GE|LT_<startTime|endTime|time>",
  "GT|GE|LT|LE_percRank",
  "HASATTR_<readPoint|bizLocation>",
  "EQ_ATTR_<readPoint|bizLocation>_<attribute>",
];

export const NAMED = new Set(GROUPS.flatMap((group) => group.fields.map((field) => field.name)));
